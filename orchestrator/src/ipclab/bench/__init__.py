"""`ipclab bench`: benchmarks of ipclab itself, each a command of commands.py thin over its module:
kernel.py (the floor-held peer against the C floor, shm against the cache-line floor, stream and
short against the floor's), http.py (the C++ REST client beside wrk), load.py (the highest rate
each client language keeps on schedule), honesty.py (a scenario run twice: do its intervals hold
the other run's medians?). They run cases through plan and execute as `ipclab run` does."""
