"""The ipclab Python peer (PROTOCOL.md version 1)."""
