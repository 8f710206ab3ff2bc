"""Per-axis (per-channel) Dequant and Quant: exhaustive numerics per channel,
layouts around the parameter-vector blocks, table period and staging
chunks, FP environments, admission messages, plans and the array layer."""
