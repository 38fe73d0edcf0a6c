"""Backends: what realises a plan and tears it down, each behind one protocol.

    protocol.py   what every backend is to the rest of sctpbench (Backend, Check)
    registry.py   the backends by name, in `--backend auto`'s order: the only lookup
    stops.py      how a run stops early (signals, exit statuses, a full disk)
    lastwords.py  room kept for a run's summary.json on a full disk
    netns/        the netns engine (a plan on the kernel it runs on) and the netns backend
    uml/          the uml backend: a User-Mode Linux guest running the netns engine; how
                  every guest boots (boot.py, boot.sh), its kernel, ids, guardian, calendar
    mininet/      the mininet backend: the netns engine on Mininet's hosts, in the guest
    ansible/      the ansible backend: machines from an inventory, each running its share
                  of the plan with the netns engine; clock preflight, clean-up, Dummynet

Engines (netns/engine.py, mininet/engine.py) run where the network is (on the host, in a
guest, on a machine) and know nothing of the protocol; each backend's backend.py is the
protocol's side, on the orchestrating host. The packages here import nothing on their
own: the guest and the machines import only the modules they run (standard library only).
"""
