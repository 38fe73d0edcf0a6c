"""The mininet backend (backend.py): the netns engine on Mininet's hosts in the guest
(engine.py), built from the plan's topology (topology.py)."""
