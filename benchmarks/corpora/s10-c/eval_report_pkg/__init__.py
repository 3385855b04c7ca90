"""Evaluation report package: builds an exported classifier and summarizes its outputs."""
