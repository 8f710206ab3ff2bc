"""Plans and their bindings at execute: immutability, reuse, buffer kinds and
refused bindings."""
