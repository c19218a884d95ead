"""ipclab: measure how programs talk to each other."""

__version__ = "0.1.0"
