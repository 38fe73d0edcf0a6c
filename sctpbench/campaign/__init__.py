"""Campaigns: a grid of parameter sweeps × repetitions over one experiment file, run in
parallel guests, resumable, tabulated, and compared against a baseline."""
