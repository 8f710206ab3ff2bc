"""EV74: the descriptor wire format, its native decoder, binding and the host
device model."""
