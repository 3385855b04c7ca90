"""Named training steps looked up from a registry by job configs."""
