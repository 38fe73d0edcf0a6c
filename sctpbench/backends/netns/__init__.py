"""The netns engine and the netns backend.

engine.py realises a plan on the kernel it runs on (entry.py: as a command, in a guest);
render.py is the plan as the commands it runs; backend.py is the netns backend, the
engine on the orchestrating host's own kernel.
"""
