"""The FP environment: its default state, set/restore, and what every
operation does under every state."""
