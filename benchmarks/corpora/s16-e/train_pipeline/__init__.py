"""A small regression training pipeline: config, trainer, callbacks."""
