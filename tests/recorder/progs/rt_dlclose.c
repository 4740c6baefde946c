/* A program that loads libscope with dlopen, records, and closes it again.
 *
 * usage: rt_dlclose LIBSCOPE RUN_DIR
 * A thread records a phase and waits; the main thread records, dlcloses the
 * library, then lets the thread exit (the recorder's thread-exit destructor
 * runs) and prints "thread exited".  Then it sends itself SIGTERM (the
 * recorder's handler) and sleeps: the driver expects death by SIGTERM.
 * Not linked with libscope: everything goes through dlsym. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static void (*begin)(const char *);
static void (*end)(void);
static int gate[2], recorded[2];

static void *recording_thread(void *arg) {
    (void)arg;
    begin("thread-work");
    end();
    if (write(recorded[1], "x", 1) != 1)
        return NULL;
    char c;
    if (read(gate[0], &c, 1) != 1)
        return NULL;
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: rt_dlclose LIBSCOPE RUN_DIR\n");
        return 2;
    }
    alarm(60);
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 2;
    }
    int (*init)(const char *, const char *) =
        (int (*)(const char *, const char *))dlsym(lib, "scope_init");
    begin = (void (*)(const char *))dlsym(lib, "scope_phase_begin");
    end = (void (*)(void))dlsym(lib, "scope_phase_end");
    if (!init || !begin || !end || pipe(gate) != 0 || pipe(recorded) != 0)
        return 2;
    if (init(argv[2], NULL) != 0)
        return 3;
    pthread_t t;
    pthread_create(&t, NULL, recording_thread, NULL);
    begin("main-work");
    end();
    char c;
    if (read(recorded[0], &c, 1) != 1)
        return 2;
    dlclose(lib);
    if (write(gate[1], "x", 1) != 1)
        return 2;
    pthread_join(t, NULL);
    puts("thread exited");
    fflush(stdout);
    kill(getpid(), SIGTERM);
    sleep(10);
    fprintf(stderr, "rt_dlclose: SIGTERM did not end the process\n");
    return 1;
}
