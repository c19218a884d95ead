/*
 * libipclab_linuxipc_jni.so: the JNI binding of the Java IPC library peers/java/linuxipc
 * (dev.ipclab.linuxipc.JniBinding, PROTOCOL.md 4.6). Each function makes one C library call and
 * returns its result, or -errno when it failed, so Java never reads errno afterwards. Buffers
 * are native memory whose address Java passes as a jlong (the library's segments): no copy and
 * no JNI call per buffer. Blocking calls run in the native state, so they never hold up the GC.
 *
 * The *Copy functions are `--java-binding jni-copy` (dev.ipclab.linuxipc.JniCopyBinding): they
 * take the Java byte[] and copy it per call, as the blog's JNI library lajp did, so that binding
 * measures what such a library costs: to send, GetByteArrayElements (HotSpot copies the whole
 * array into a malloc'ed block, no pinning), malloc of the message, memcpy, the call, free,
 * ReleaseByteArrayElements(JNI_ABORT) (nothing to write back); to receive, malloc, the call,
 * SetByteArrayRegion of the bytes received, free. Java checks the bounds before the call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <jni.h>
#include <linux/futex.h>
#include <mqueue.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define EXPORT(type, name) JNIEXPORT type JNICALL Java_dev_ipclab_linuxipc_JniBinding_##name

/* semctl's fourth argument; glibc leaves its definition to the caller. */
union semun {
    int val;
    struct semid_ds *buf;
    unsigned short *array;
};

static jlong result(long rc) {
    return rc < 0 ? -(jlong) errno : (jlong) rc;
}

static void *pointer(jlong address) {
    return (void *) (uintptr_t) address;
}

static struct timespec relative(jlong nanos) {
    struct timespec ts = {.tv_sec = nanos / 1000000000L, .tv_nsec = nanos % 1000000000L};
    return ts;
}

/* CLOCK_REALTIME now plus the timeout, as mq_timedreceive wants its deadline. */
static struct timespec realtime_deadline(jlong nanos) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += nanos / 1000000000L;
    deadline.tv_nsec += nanos % 1000000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    return deadline;
}

/* A System V message as msgsnd and msgrcv take it: the type, then the text. */
struct message {
    long mtype;
    char mtext[];
};

/* A Java string as a NUL-terminated modified UTF-8 copy; NULL (with an exception pending) when
 * the JVM is out of memory. Paths and queue names here are ASCII. */
static const char *chars(JNIEnv *env, jstring text) {
    return (*env)->GetStringUTFChars(env, text, NULL);
}

EXPORT(jint, msgget)(JNIEnv *env, jobject self, jint key, jint flags) {
    (void) env; (void) self;
    return (jint) result(msgget(key, flags));
}

EXPORT(jint, msgsnd0)(JNIEnv *env, jclass cls, jint id, jlong message, jlong length, jint flags) {
    (void) env; (void) cls;
    return (jint) result(msgsnd(id, pointer(message), (size_t) length, flags));
}

EXPORT(jlong, msgrcv0)(JNIEnv *env, jclass cls, jint id, jlong message, jlong capacity, jlong type,
                       jint flags) {
    (void) env; (void) cls;
    return result(msgrcv(id, pointer(message), (size_t) capacity, type, flags));
}

EXPORT(jint, msgctlRemove)(JNIEnv *env, jobject self, jint id) {
    (void) env; (void) self;
    return (jint) result(msgctl(id, IPC_RMID, NULL));
}

EXPORT(jint, semget)(JNIEnv *env, jobject self, jint key, jint count, jint flags) {
    (void) env; (void) self;
    return (jint) result(semget(key, count, flags));
}

EXPORT(jint, semop)(JNIEnv *env, jobject self, jint id, jint sem, jint delta) {
    (void) env; (void) self;
    struct sembuf op = {.sem_num = (unsigned short) sem, .sem_op = (short) delta, .sem_flg = 0};
    return (jint) result(semop(id, &op, 1));
}

EXPORT(jint, semtimedop)(JNIEnv *env, jobject self, jint id, jint sem, jint delta, jlong nanos) {
    (void) env; (void) self;
    struct sembuf op = {.sem_num = (unsigned short) sem, .sem_op = (short) delta, .sem_flg = 0};
    struct timespec timeout = relative(nanos);
    return (jint) result(semtimedop(id, &op, 1, &timeout));
}

EXPORT(jint, semctl)(JNIEnv *env, jobject self, jint id, jint sem, jint cmd) {
    (void) env; (void) self;
    return (jint) result(semctl(id, sem, cmd));
}

EXPORT(jint, semctlSetValue)(JNIEnv *env, jobject self, jint id, jint sem, jint value) {
    (void) env; (void) self;
    union semun arg = {.val = value};
    return (jint) result(semctl(id, sem, SETVAL, arg));
}

EXPORT(jint, semctlArray0)(JNIEnv *env, jclass cls, jint id, jint cmd, jlong array) {
    (void) env; (void) cls;
    union semun arg = {.array = pointer(array)};
    return (jint) result(semctl(id, 0, cmd, arg));
}

EXPORT(jint, shmget)(JNIEnv *env, jobject self, jint key, jlong size, jint flags) {
    (void) env; (void) self;
    return (jint) result(shmget(key, (size_t) size, flags));
}

EXPORT(jlong, shmSegmentSize)(JNIEnv *env, jobject self, jint id) {
    (void) env; (void) self;
    struct shmid_ds ds;
    if (shmctl(id, IPC_STAT, &ds) < 0) {
        return -(jlong) errno;
    }
    return (jlong) ds.shm_segsz;
}

EXPORT(jlong, shmat)(JNIEnv *env, jobject self, jint id, jint flags) {
    (void) env; (void) self;
    void *at = shmat(id, NULL, flags);
    return at == (void *) -1 ? -(jlong) errno : (jlong) (uintptr_t) at;
}

EXPORT(jint, shmdt)(JNIEnv *env, jobject self, jlong address) {
    (void) env; (void) self;
    return (jint) result(shmdt(pointer(address)));
}

EXPORT(jint, shmctlRemove)(JNIEnv *env, jobject self, jint id) {
    (void) env; (void) self;
    return (jint) result(shmctl(id, IPC_RMID, NULL));
}

EXPORT(jint, mqOpen)(JNIEnv *env, jobject self, jstring name, jint flags) {
    (void) self;
    const char *text = chars(env, name);
    if (text == NULL) {
        return -ENOMEM;
    }
    jint rc = (jint) result(mq_open(text, flags));
    (*env)->ReleaseStringUTFChars(env, name, text);
    return rc;
}

EXPORT(jint, mqCreate)(JNIEnv *env, jobject self, jstring name, jint flags, jint mode,
                       jlong max_messages, jlong message_size) {
    (void) self;
    const char *text = chars(env, name);
    if (text == NULL) {
        return -ENOMEM;
    }
    struct mq_attr attr = {.mq_maxmsg = max_messages, .mq_msgsize = message_size};
    jint rc = (jint) result(mq_open(text, flags, (mode_t) mode, &attr));
    (*env)->ReleaseStringUTFChars(env, name, text);
    return rc;
}

EXPORT(jint, mqSend0)(JNIEnv *env, jclass cls, jint mqd, jlong src, jlong length, jint priority) {
    (void) env; (void) cls;
    return (jint) result(mq_send(mqd, pointer(src), (size_t) length, (unsigned) priority));
}

EXPORT(jlong, mqReceive0)(JNIEnv *env, jclass cls, jint mqd, jlong dst, jlong capacity) {
    (void) env; (void) cls;
    return result(mq_receive(mqd, pointer(dst), (size_t) capacity, NULL));
}

EXPORT(jlong, mqTimedReceive0)(JNIEnv *env, jclass cls, jint mqd, jlong dst, jlong capacity,
                               jlong nanos) {
    (void) env; (void) cls;
    struct timespec deadline = realtime_deadline(nanos);
    return result(mq_timedreceive(mqd, pointer(dst), (size_t) capacity, NULL, &deadline));
}

EXPORT(jint, mqGetAttributes0)(JNIEnv *env, jclass cls, jint mqd, jlong attr) {
    (void) env; (void) cls;
    return (jint) result(mq_getattr(mqd, pointer(attr)));
}

EXPORT(jint, mqClose)(JNIEnv *env, jobject self, jint mqd) {
    (void) env; (void) self;
    return (jint) result(mq_close(mqd));
}

EXPORT(jint, mqUnlink)(JNIEnv *env, jobject self, jstring name) {
    (void) self;
    const char *text = chars(env, name);
    if (text == NULL) {
        return -ENOMEM;
    }
    jint rc = (jint) result(mq_unlink(text));
    (*env)->ReleaseStringUTFChars(env, name, text);
    return rc;
}

EXPORT(jint, mkfifo)(JNIEnv *env, jobject self, jstring path, jint mode) {
    (void) self;
    const char *text = chars(env, path);
    if (text == NULL) {
        return -ENOMEM;
    }
    jint rc = (jint) result(mkfifo(text, (mode_t) mode));
    (*env)->ReleaseStringUTFChars(env, path, text);
    return rc;
}

/* FUTEX_WAIT and FUTEX_WAKE without FUTEX_PRIVATE_FLAG: the word is in shared memory. */
EXPORT(jlong, futexWait)(JNIEnv *env, jobject self, jlong address, jint expected, jlong nanos) {
    (void) env; (void) self;
    struct timespec timeout = relative(nanos);
    return result(syscall(SYS_futex, pointer(address), FUTEX_WAIT, expected,
                          nanos >= 0 ? &timeout : NULL, NULL, 0));
}

EXPORT(jlong, futexWake)(JNIEnv *env, jobject self, jlong address, jint count) {
    (void) env; (void) self;
    return result(syscall(SYS_futex, pointer(address), FUTEX_WAKE, count, NULL, NULL, 0));
}

/* jni-copy (see the top): msgsnd of data[0, length) as a message of the type; 0 or -errno. */
EXPORT(jint, msgsndCopy)(JNIEnv *env, jclass cls, jint id, jlong type, jbyteArray data,
                         jint length, jint flags) {
    (void) cls;
    jbyte *elements = (*env)->GetByteArrayElements(env, data, NULL);
    if (elements == NULL) {
        return -ENOMEM; /* OutOfMemoryError pending */
    }
    struct message *message = malloc(sizeof(struct message) + (size_t) length);
    if (message == NULL) {
        (*env)->ReleaseByteArrayElements(env, data, elements, JNI_ABORT);
        return -ENOMEM;
    }
    message->mtype = (long) type;
    memcpy(message->mtext, elements, (size_t) length);
    jint rc = (jint) result(msgsnd(id, message, (size_t) length, flags));
    free(message);
    (*env)->ReleaseByteArrayElements(env, data, elements, JNI_ABORT);
    return rc;
}

/* jni-copy: msgrcv of at most capacity text bytes into data; the text length or -errno. */
EXPORT(jlong, msgrcvCopy)(JNIEnv *env, jclass cls, jint id, jbyteArray data, jint capacity,
                          jlong type, jint flags) {
    (void) cls;
    struct message *message = malloc(sizeof(struct message) + (size_t) capacity);
    if (message == NULL) {
        return -ENOMEM;
    }
    jlong n = result(msgrcv(id, message, (size_t) capacity, type, flags));
    if (n > 0) {
        (*env)->SetByteArrayRegion(env, data, 0, (jsize) n, (const jbyte *) message->mtext);
    }
    free(message);
    return n;
}

/* jni-copy: mq_send of data[0, length) with the priority; 0 or -errno. */
EXPORT(jint, mqSendCopy)(JNIEnv *env, jclass cls, jint mqd, jbyteArray data, jint length,
                         jint priority) {
    (void) cls;
    jbyte *elements = (*env)->GetByteArrayElements(env, data, NULL);
    if (elements == NULL) {
        return -ENOMEM; /* OutOfMemoryError pending */
    }
    char *message = malloc(length > 0 ? (size_t) length : 1);
    if (message == NULL) {
        (*env)->ReleaseByteArrayElements(env, data, elements, JNI_ABORT);
        return -ENOMEM;
    }
    memcpy(message, elements, (size_t) length);
    jint rc = (jint) result(mq_send(mqd, message, (size_t) length, (unsigned) priority));
    free(message);
    (*env)->ReleaseByteArrayElements(env, data, elements, JNI_ABORT);
    return rc;
}

/* jni-copy: mq_timedreceive within timeoutNanos (negative: mq_receive, no timeout) into data;
 * the message length or -errno (ETIMEDOUT when the time ran out). */
EXPORT(jlong, mqTimedReceiveCopy)(JNIEnv *env, jclass cls, jint mqd, jbyteArray data,
                                  jint capacity, jlong nanos) {
    (void) cls;
    char *message = malloc(capacity > 0 ? (size_t) capacity : 1);
    if (message == NULL) {
        return -ENOMEM;
    }
    jlong n;
    if (nanos < 0) {
        n = result(mq_receive(mqd, message, (size_t) capacity, NULL));
    } else {
        struct timespec deadline = realtime_deadline(nanos);
        n = result(mq_timedreceive(mqd, message, (size_t) capacity, NULL, &deadline));
    }
    if (n > 0) {
        (*env)->SetByteArrayRegion(env, data, 0, (jsize) n, (const jbyte *) message);
    }
    free(message);
    return n;
}
