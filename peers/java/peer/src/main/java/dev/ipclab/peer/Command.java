package dev.ipclab.peer;

/** A parsed command line: what to do and with which options. */
sealed interface Command permits ServeOptions, DriveOptions, Capabilities {}
