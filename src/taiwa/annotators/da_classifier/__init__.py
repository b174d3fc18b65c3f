"""The embedded dialogue-act classifier (seed 002 §5.2), in pipeline order: text forms,
features, training, calibration, the model and its loader, the default recipe, reports."""
