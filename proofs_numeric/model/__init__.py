"""The model stack: checkpoint reading, the site registry, the float and interval forwards, synthetic checkpoints,
the model service."""
