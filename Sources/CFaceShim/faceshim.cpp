// The Haar cascade detector of the C interface (`fd_`), and what both detectors share: Swift
// sees plain C and no C++ type crosses the boundary. The CNN detector is in yunet.cpp.
#include "faceshim.h"
#include "shared.hpp"

#include <opencv2/core.hpp>
#include <opencv2/core/ocl.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

// The first finds candidates; the others vote. One cascade alone takes window blinds and
// shirts for faces; agreement of differently trained ones removes most of that (measured on
// the labelled set of Tests/Faces/labels.tsv: docs/benchmarks.md#faces).
extern "C" const char *const fd_cascade_files[4] = {
    "haarcascade_frontalface_alt2.xml",
    "haarcascade_frontalface_default.xml",
    "haarcascade_frontalface_alt.xml",
    "haarcascade_frontalface_alt_tree.xml",
};

namespace thumbd_faces {

char *copied(const std::string &text) {
    char *out = static_cast<char *>(std::malloc(text.size() + 1));
    if (out) std::memcpy(out, text.c_str(), text.size() + 1);
    return out;
}

// OpenCV's own thread pool off (the server's workers are the parallelism), and its log quiet:
// failures come back as errors the server reports.
void setUp() {
    static std::once_flag once;
    std::call_once(once, [] {
        cv::setNumThreads(0);
        cv::ocl::setUseOpenCL(false);
        cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
    });
}

}  // namespace thumbd_faces

using thumbd_faces::copied;
using thumbd_faces::setUp;

namespace {

constexpr int kCascades = 4;
// alt_tree is a stricter tree of stages: one neighbour is its usual setting.
constexpr int kNeighbours[kCascades] = {3, 3, 3, 1};
constexpr int kVotesNeeded = 2;
// Between the window sizes the first cascade tries: 1.2 finds what 1.1 found on the labelled
// set in about 60 % of the time (bench/faces.sh).
constexpr double kScaleStep = 1.2;

struct Cascades {
    std::string dir;
    std::array<cv::CascadeClassifier, kCascades> each;
};

// A classifier keeps scratch buffers while it detects: one set per worker thread, loaded the
// first time that thread detects (a few MB each).
Cascades *cascades(const char *dir, std::string &error) {
    thread_local std::unique_ptr<Cascades> loaded;
    if (loaded && loaded->dir == dir) return loaded.get();
    auto fresh = std::make_unique<Cascades>();
    fresh->dir = dir;
    for (int i = 0; i < kCascades; i++) {
        std::string path = std::string(dir) + "/" + fd_cascade_files[i];
        if (!fresh->each[i].load(path) || fresh->each[i].empty()) {
            error = "cannot load the face cascade " + path;
            return nullptr;
        }
    }
    loaded = std::move(fresh);
    return loaded.get();
}

double overlap(const cv::Rect &a, const cv::Rect &b) {
    double shared = (a & b).area();
    return shared / (a.area() + b.area() - shared);
}

// Whether a cascade finds a face near `candidate`, looking only around it.
bool confirms(cv::CascadeClassifier &cascade, int neighbours, const cv::Mat &gray, const cv::Rect &candidate) {
    int margin = candidate.width / 2;
    cv::Rect around = cv::Rect(candidate.x - margin, candidate.y - margin, candidate.width + 2 * margin,
                               candidate.height + 2 * margin) & cv::Rect(0, 0, gray.cols, gray.rows);
    std::vector<cv::Rect> found;
    cv::Size smallest(candidate.width * 6 / 10, candidate.height * 6 / 10), largest(candidate.width * 16 / 10, candidate.height * 16 / 10);
    cascade.detectMultiScale(gray(around), found, 1.1, neighbours, cv::CASCADE_SCALE_IMAGE, smallest, largest);
    for (const cv::Rect &face : found) {
        if (overlap(face + around.tl(), candidate) > 0.4) return true;
    }
    return false;
}

}  // namespace

extern "C" int fd_detect_faces(const unsigned char *rgba, int width, int height, const char *cascade_dir, int min_side,
                               fd_face *out, int capacity, char **err) {
    try {
        setUp();
        std::string error;
        Cascades *set = cascades(cascade_dir, error);
        if (!set) {
            if (err) *err = copied(error);
            return -1;
        }
        cv::Mat image(height, width, CV_8UC4, const_cast<unsigned char *>(rgba));
        cv::Mat gray;
        // No histogram equalization (OpenCV's sample has one): the cascades normalize each
        // window's contrast themselves, and equalizing the whole image let a bright region
        // elsewhere hide a face and made a false one (the labelled set, FaceTests' lure).
        cv::cvtColor(image, gray, cv::COLOR_RGBA2GRAY);
        std::vector<cv::Rect> candidates, faces;
        set->each[0].detectMultiScale(gray, candidates, kScaleStep, kNeighbours[0], cv::CASCADE_SCALE_IMAGE, cv::Size(min_side, min_side));
        for (const cv::Rect &candidate : candidates) {
            int votes = 0;
            for (int i = 1; i < kCascades && votes < kVotesNeeded; i++) {
                if (confirms(set->each[i], kNeighbours[i], gray, candidate)) votes++;
            }
            if (votes >= kVotesNeeded) faces.push_back(candidate);
        }
        std::sort(faces.begin(), faces.end(), [](const cv::Rect &a, const cv::Rect &b) { return a.area() > b.area(); });
        int count = std::min(static_cast<int>(faces.size()), capacity);
        for (int i = 0; i < count; i++) out[i] = fd_face{faces[i].x, faces[i].y, faces[i].width, faces[i].height, -1.0f};
        return static_cast<int>(faces.size());
    } catch (const std::exception &e) {
        if (err) *err = copied(e.what());
        return -1;
    }
}

extern "C" int fd_check_cascades(const char *cascade_dir, char **err) {
    try {
        setUp();
        std::string error;
        if (cascades(cascade_dir, error)) return 0;
        if (err) *err = copied(error);
        return -1;
    } catch (const std::exception &e) {
        if (err) *err = copied(e.what());
        return -1;
    }
}

extern "C" void fd_free(void *pointer) { std::free(pointer); }
