"""Benchmarks of the Transformer Attention Explorer: `python -m bench` (or bench/run.sh).

Never part of the test run: they print figures and write them to bench/results.md.
"""
