package dev.ipclab.peer.rpc;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** The ipclab service over Java RMI (protocol/idl/rmi.md): RMI has no IDL, this is the definition. */
public interface RmiBench extends Remote {
    byte[] call(long seq, int wanted, byte[] request) throws RemoteException;

    RmiRecords.Small echoSmall(RmiRecords.Small value) throws RemoteException;

    RmiRecords.Medium echoMedium(RmiRecords.Medium value) throws RemoteException;

    RmiRecords.Large echoLarge(RmiRecords.Large value) throws RemoteException;

    long finish() throws RemoteException;

    /** The void operations (PROTOCOL.md 10.1, --void): two-way, RMI's void return. */
    void put(long seq, byte[] request) throws RemoteException;

    void putSmall(RmiRecords.Small value) throws RemoteException;

    void putMedium(RmiRecords.Medium value) throws RemoteException;

    void putLarge(RmiRecords.Large value) throws RemoteException;
}
