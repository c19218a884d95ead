from ipclab.cli import main

main()
