"""Route tensors made for each pipeline stage onto the serving device."""
