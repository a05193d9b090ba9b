"""Private numerical kernels: arrays in, arrays out; no xarray, no pluggy."""
