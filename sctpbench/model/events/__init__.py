"""Event kinds of the experiment's timeline, one module per kind (fail.py, flap.py, …).

`base.py` says what a kind is; `registry.py` finds the kinds by scanning this package, so
adding a kind is adding a module here and nothing else.
"""
