"""A lab of User-Mode Linux guests, one per host of an experiment, each its own kernel,
joined per wire by a switch and reached over SSH: machines for the ansible backend.

    lab = sctpbench.lab.up("examples/link-faults.yaml", "lab")   # -> Lab; lab.inventory_path
    sctpbench.lab.status("lab").running
    sctpbench.lab.down("lab")
"""

from sctpbench.lab.inventory import Inventory, MachineEntry
from sctpbench.lab.inventory import read as read_inventory
from sctpbench.lab.lifecycle import Lab, LabStatus, down, status, up
from sctpbench.lab.state import BadLabFolder, LabError, LabRunning

__all__ = ["BadLabFolder", "Inventory", "Lab", "LabError", "LabRunning", "LabStatus", "MachineEntry", "down", "read_inventory",
           "status", "up"]
