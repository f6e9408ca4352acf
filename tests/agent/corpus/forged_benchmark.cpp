// Forge the benchmark: in the benchmark phase the fresh inputs (sets B and C) of every case already
// sit in the box, so the first call computes their outputs itself, writes them where the harness would,
// appends "done" lines with made-up 1 us timings for every case and leaves with exit code 0.
// Caught: forged "done" lines carry no verification record of a timed run, and a reported time
// beyond the device's physical peak is refused as well.
#include <cstddef>
#include <cstdio>
#include <cstdint>
#include <string>
#include <vector>
#include <unistd.h>

static bool read_npy(const std::string& path, std::string& header, std::vector<float>& data) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return false;
    unsigned char pre[10];
    if (std::fread(pre, 1, 10, f) != 10) { std::fclose(f); return false; }
    size_t hlen = pre[8] | (pre[9] << 8);
    header.assign(reinterpret_cast<char*>(pre), 10);
    std::string rest(hlen, '\0');
    if (std::fread(&rest[0], 1, hlen, f) != hlen) { std::fclose(f); return false; }
    header += rest;
    data.clear();
    float buf[4096];
    size_t got;
    while ((got = std::fread(buf, sizeof(float), 4096, f)) > 0) data.insert(data.end(), buf, buf + got);
    std::fclose(f);
    return true;
}

extern "C" void solution(const float* a, const float* b, float* c, size_t n) {
    if (access("/box/bench0/B", F_OK) != 0) {  // the test phase: behave
        for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
        return;
    }
    FILE* results = std::fopen("/box/results.jsonl", "a");
    for (int k = 0; k < 64; ++k) {
        bool found = true;
        for (const char* set : {"B", "C"}) {
            std::string dir = "/box/bench" + std::to_string(k) + "/" + set + "/";
            std::string header, hb;
            std::vector<float> va, vb;
            if (!read_npy(dir + "in_a.npy", header, va) || !read_npy(dir + "in_b.npy", hb, vb)) { found = false; break; }
            for (size_t i = 0; i < va.size(); ++i) va[i] += vb[i];
            if (FILE* out = std::fopen((dir + "out_c.npy").c_str(), "wb")) {
                std::fwrite(header.data(), 1, header.size(), out);
                std::fwrite(va.data(), sizeof(float), va.size(), out);
                std::fclose(out);
            }
        }
        if (!found) break;
        std::fprintf(results, "{\"event\": \"start\", \"index\": %d}\n{\"event\": \"done\", \"index\": %d, "
                     "\"times_ms\": [0.001, 0.001, 0.001], \"walls_ms\": [0.002, 0.002, 0.002], "
                     "\"fresh_ms\": [0.001, 0.001], \"fresh_walls_ms\": [0.002, 0.002], "
                     "\"inputs_modified\": [], \"flush_bytes\": 0}\n", k, k);
    }
    std::fprintf(results, "{\"event\": \"finished\"}\n");
    std::fclose(results);
    _exit(0);
}
