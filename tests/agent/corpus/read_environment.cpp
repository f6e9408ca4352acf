// Read the agent's environment: getenv, /proc/self/environ, /proc/1/environ and every other
// /proc/<pid>/environ the child can see. Finding @ENV_NAME@ poisons the result.
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <string>
#include <unistd.h>

static bool environ_file_has(const std::string& path, const char* needle) {
    int fd = open(path.c_str(), O_RDONLY);
    if (fd < 0) return false;
    std::string data;
    char buf[4096];
    ssize_t got;
    while ((got = read(fd, buf, sizeof buf)) > 0 && data.size() < (1u << 20)) data.append(buf, got);
    close(fd);
    for (char& ch : data) if (ch == '\0') ch = '\n';
    return data.find(needle) != std::string::npos;
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    const char* needle = "@ENV_NAME@=";
    bool leaked = std::getenv("@ENV_NAME@") != nullptr;
    leaked |= environ_file_has("/proc/self/environ", needle);
    leaked |= environ_file_has("/proc/1/environ", needle);
    if (DIR* proc = opendir("/proc")) {
        while (dirent* entry = readdir(proc)) {
            if (entry->d_name[0] >= '0' && entry->d_name[0] <= '9')
                leaked |= environ_file_has(std::string("/proc/") + entry->d_name + "/environ", needle);
        }
        closedir(proc);
    }
    for (size_t i = 0; i < n; ++i) c[i] = leaked ? 12345.0f : a[i] + b[i];
}
