"""Export-and-log package whose logging goes through capture checks."""
