"""Dataset schemas and loaders, one module per method."""
