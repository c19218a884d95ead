"""One System V semaphore *set* through ctypes (libc semget / semtimedop / semctl).

sysv_ipc only offers sets of one semaphore each, while PROTOCOL.md 4.1 wants one set of four
under the segment's key, so the few calls needed are made directly. ctypes releases the GIL
around each call, so the server's shutdown threads still run while the main thread waits.
"""
import ctypes
import errno
import os

IPC_CREAT, IPC_EXCL, IPC_RMID = 0o1000, 0o2000, 0
GETVAL, SETALL = 12, 17
_MAX_TIMEOUT = 10**9  # seconds; keeps the timespec far from overflow


class _Sembuf(ctypes.Structure):
    _fields_ = [("sem_num", ctypes.c_ushort), ("sem_op", ctypes.c_short),
                ("sem_flg", ctypes.c_short)]


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


_libc = ctypes.CDLL(None, use_errno=True)
_semget = _libc.semget
_semget.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
_semtimedop = _libc.semtimedop
_semtimedop.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
_semctl = _libc.semctl
# semctl is variadic; on x86-64 and aarch64 Linux an int or pointer argument is passed the same
# way to a variadic and a fixed parameter, so a fixed 4th parameter is safe.
_semctl.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]


class SemaphoreTimeout(Exception):
    """semtimedop waited the whole timeout."""


def _os_error(what):
    err = ctypes.get_errno()
    return OSError(err, f"{what}: {os.strerror(err)}")


class SemaphoreSet:
    def __init__(self, semid):
        self.id = semid
        # Preallocated operations: a P or V costs one ctypes call and no allocation.
        self._ops = {}

    @classmethod
    def create(cls, key, count, mode=0o600):
        """semget(IPC_CREAT | IPC_EXCL); FileExistsError if the key is taken."""
        semid = _semget(key, count, IPC_CREAT | IPC_EXCL | mode)
        if semid < 0:
            err = ctypes.get_errno()
            if err == errno.EEXIST:
                raise FileExistsError(err, os.strerror(err))
            raise _os_error("semget")
        return cls(semid)

    @classmethod
    def open(cls, key, count):
        semid = _semget(key, count, 0)
        if semid < 0:
            raise _os_error("semget")
        return cls(semid)

    def set_all(self, values):
        array = (ctypes.c_ushort * len(values))(*values)
        if _semctl(self.id, 0, SETALL, ctypes.addressof(array)) < 0:
            raise _os_error("semctl(SETALL)")

    def check(self):
        """OSError (EIDRM, EINVAL) if the set was removed."""
        if _semctl(self.id, 0, GETVAL, None) < 0:
            raise _os_error("semctl(GETVAL)")

    def remove(self):
        if _semctl(self.id, 0, IPC_RMID, None) < 0:
            raise _os_error("semctl(IPC_RMID)")

    def operation(self, number, delta, timeout=None):
        """A callable doing semop (or semtimedop with `timeout` seconds) of `delta` on one
        semaphore, sem_flg 0. It raises SemaphoreTimeout, or OSError (EIDRM: set removed)."""
        op = _Sembuf(number, delta, 0)
        keep = [op]
        timespec_address = None
        if timeout is not None:
            seconds = min(timeout, _MAX_TIMEOUT)
            whole = int(seconds)
            spec = _Timespec(whole, int((seconds - whole) * 1e9))
            keep.append(spec)
            timespec_address = ctypes.addressof(spec)
        self._ops[(number, delta, timeout)] = keep  # keeps the structures alive
        semid, op_address = self.id, ctypes.addressof(op)

        def semop():
            while _semtimedop(semid, op_address, 1, timespec_address) != 0:
                err = ctypes.get_errno()
                if err == errno.EINTR:
                    continue
                if err == errno.EAGAIN:
                    raise SemaphoreTimeout()
                raise OSError(err, f"semop: {os.strerror(err)}")
        return semop
