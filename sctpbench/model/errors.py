"""Errors meant for the user as they are; standard library only (the guest imports it)."""


class SpecError(Exception):
    """Bad experiment file or override: nothing was built."""


class BackendError(Exception):
    """Building or running the emulated network failed; the message says what and where."""
