"""The ansible backend (backend.py): machines from an inventory (inventory.py), their
clocks checked (clocksync.py), each running its share of the plan with the netns engine
(share.py), cleaned after (clean.py); a FreeBSD emulator's Dummynet rules (dummynet.py)."""
