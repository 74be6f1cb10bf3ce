"""Self-play training and evaluation (filled in by the training issues)."""
