"""Calibrating the heal's confidence against the benchmarks: labels (is a shipped patch the
reference fix in meaning), the reliability table and expected calibration error, and the fit of
the model the package ships (`python -m evaluation.calibration --fit ...`)."""
