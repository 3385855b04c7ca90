"""Export a ranking model and write a report of its outputs."""
