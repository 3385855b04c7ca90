"""Export a ranking model inside a session and serve the program from its JSON."""
