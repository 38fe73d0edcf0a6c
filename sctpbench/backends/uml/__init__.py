"""The uml backend (backend.py) and the User-Mode Linux guests.

How every guest boots (boot.py: its command line; boot.sh: its PID 1's shared steps;
init.sh: the uml backend's PID 1), which kernel (kernel.py), finding a guest by its id
(guests.py), the guardian of a killed run (guardian.py), the paced calendar (timetravel.py).
"""
