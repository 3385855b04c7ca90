"""A regression model trained eagerly, then traced through module-level session state."""
