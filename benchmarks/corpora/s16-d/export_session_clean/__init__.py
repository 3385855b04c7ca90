"""An export session whose fields switch from eager data to capture placeholders when armed."""
