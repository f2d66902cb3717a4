/* floor.c — the loopback TCP floor: what the kernel alone charges a sender for pushing a frame of
 * S bytes to each of N connections at R Hz, with a reader process draining them. vivd's CPU per
 * viewer-frame (bench/fanout.sh) is stated against this, measured in the same run: on loopback the
 * receiver's TCP processing runs on the sender's CPU, which no server code can avoid.
 *
 *   floor N BYTES HZ SECONDS      e.g. floor 1000 5000 60 10
 *
 * Prints: µs of sender CPU (user, sys) per message. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_us(int sys)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    struct timeval t = sys ? ru.ru_stime : ru.ru_utime;
    return (double)t.tv_sec * 1e6 + (double)t.tv_usec;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: floor N BYTES HZ SECONDS\n");
        return 2;
    }
    int n = atoi(argv[1]), bytes = atoi(argv[2]), hz = atoi(argv[3]), secs = atoi(argv[4]);
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
    signal(SIGPIPE, SIG_IGN);
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t al = sizeof a;
    if (bind(ls, (struct sockaddr *)&a, sizeof a) || listen(ls, 4096) || getsockname(ls, (struct sockaddr *)&a, &al)) {
        perror("floor: listen");
        return 1;
    }
    /* As in bench/fanout.sh: the sender on CPU 0, the reader on CPU 1 (when there are two). */
    cpu_set_t cs;
    int two = sysconf(_SC_NPROCESSORS_ONLN) >= 2;
    pid_t pid = fork();
    if (pid == 0) {                         /* the reader: connect N, drain forever */
        if (two) {
            CPU_ZERO(&cs);
            CPU_SET(1, &cs);
            sched_setaffinity(0, sizeof cs, &cs);
        }
        int ep = epoll_create1(0);
        for (int i = 0; i < n; i++) {
            int fd = socket(AF_INET, SOCK_STREAM, 0);
            if (connect(fd, (struct sockaddr *)&a, sizeof a)) _exit(1);
            struct epoll_event ev = { EPOLLIN, { .fd = fd } };
            epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
        }
        static char buf[1 << 16];
        struct epoll_event evs[256];
        for (;;) {
            int k = epoll_wait(ep, evs, 256, -1);
            for (int i = 0; i < k; i++)
                if (read(evs[i].data.fd, buf, sizeof buf) <= 0) _exit(0);
        }
    }
    if (two) {
        CPU_ZERO(&cs);
        CPU_SET(0, &cs);
        sched_setaffinity(0, sizeof cs, &cs);
    }
    int *fds = malloc((size_t)n * sizeof *fds);
    for (int i = 0; i < n; i++) {
        fds[i] = accept(ls, NULL, NULL);
        int one = 1;
        setsockopt(fds[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    char *msg = malloc((size_t)bytes);
    for (int i = 0; i < bytes; i++) msg[i] = (char)(i * 131);
    double u0 = cpu_us(0), s0 = cpu_us(1), t0 = now();
    long sent = 0;
    for (int tick = 0; tick < secs * hz; tick++) {
        double due = t0 + (double)tick / hz;
        while (now() < due) usleep(200);
        for (int i = 0; i < n; i++) {
            if (write(fds[i], msg, (size_t)bytes) == bytes) sent++;
        }
    }
    double du = cpu_us(0) - u0, ds = cpu_us(1) - s0;
    printf("floor: %d connections, %d-byte messages at %d Hz for %d s: %ld sent, sender CPU per "
           "message %.2f µs (user %.2f, sys %.2f)\n", n, bytes, hz, secs, sent,
           (du + ds) / (double)sent, du / (double)sent, ds / (double)sent);
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    return 0;
}
