"""Cases of bad input for tests/test_bad_inputs.py, one module per kind of input."""
