"""Benchmarks (``make bench``): figures to compare with the targets, not pass/fail tests."""
