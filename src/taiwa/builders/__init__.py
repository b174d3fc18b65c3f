"""Dataset builders (``taiwa build ...``)."""
