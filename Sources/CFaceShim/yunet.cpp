// The CNN detector of the C interface: YuNet (the 2023 model of OpenCV's model zoo, MIT) read
// by OpenCV's DNN module from its ONNX file. Debian's OpenCV 4.6 has a FaceDetectorYN class,
// but it decodes the 2022 model's outputs only; the 2023 model's are decoded here, as
// OpenCV 4.8's class does: per stride, a score and a box for each cell.
#include "faceshim.h"
#include "shared.hpp"

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

using thumbd_faces::copied;
using thumbd_faces::setUp;

namespace {

constexpr int kStrides[3] = {8, 16, 32};
// Boxes of one face overlap; the best-scoring one is kept when two overlap by more than this.
constexpr float kOverlapLimit = 0.3f;

// A net keeps its layers' buffers between runs and is not safe to run on two threads at once:
// each detection borrows one of its model's nets from this pool and gives it back, so there
// are never more nets of a model than detections of it running at one time.
class NetPool {
  public:
    struct Lease {
        NetPool *pool;
        std::string model;
        std::unique_ptr<cv::dnn::Net> net;
        ~Lease() {
            if (net) pool->giveBack(model, std::move(net));
        }
    };

    Lease borrow(const std::string &model) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            auto &idle = idle_[model];
            if (!idle.empty()) {
                auto net = std::move(idle.back());
                idle.pop_back();
                return Lease{this, model, std::move(net)};
            }
        }
        auto net = std::make_unique<cv::dnn::Net>(cv::dnn::readNetFromONNX(model));
        if (net->empty()) throw std::runtime_error("cannot read the face model " + model);
        net->setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        net->setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        return Lease{this, model, std::move(net)};
    }

  private:
    void giveBack(const std::string &model, std::unique_ptr<cv::dnn::Net> net) {
        std::lock_guard<std::mutex> lock(mutex_);
        idle_[model].push_back(std::move(net));
    }

    std::mutex mutex_;
    // By model file: a server has one; tests make detectors of two.
    std::map<std::string, std::vector<std::unique_ptr<cv::dnn::Net>>> idle_;
};

NetPool &pool() {
    static NetPool *shared = new NetPool();  // never destroyed: workers may still hold a lease at exit
    return *shared;
}

float clamped(float value) { return std::min(1.0f, std::max(0.0f, value)); }

}  // namespace

extern "C" int fd_cnn_detect(const unsigned char *rgba, int width, int height, const char *model, float min_score,
                             fd_face *out, int capacity, char **err) {
    try {
        setUp();
        auto lease = pool().borrow(model);
        // The model reads BGR pixels, unscaled, in a frame whose sides are multiples of 32.
        int paddedWidth = (width + 31) / 32 * 32, paddedHeight = (height + 31) / 32 * 32;
        cv::Mat image(height, width, CV_8UC4, const_cast<unsigned char *>(rgba));
        cv::Mat frame = cv::Mat::zeros(paddedHeight, paddedWidth, CV_8UC3);
        cv::Mat inside = frame(cv::Rect(0, 0, width, height));
        cv::cvtColor(image, inside, cv::COLOR_RGBA2BGR);
        lease.net->setInput(cv::dnn::blobFromImage(frame));
        std::vector<std::string> names;
        for (int stride : kStrides) {
            for (const char *kind : {"cls_", "obj_", "bbox_"}) names.push_back(kind + std::to_string(stride));
        }
        std::vector<cv::Mat> outputs;
        lease.net->forward(outputs, names);

        std::vector<cv::Rect2d> boxes;
        std::vector<float> scores;
        for (int s = 0; s < 3; s++) {
            int stride = kStrides[s], columns = paddedWidth / stride, cells = columns * (paddedHeight / stride);
            const float *cls = outputs[3 * s].ptr<float>(), *obj = outputs[3 * s + 1].ptr<float>();
            const float *box = outputs[3 * s + 2].ptr<float>();
            if (outputs[3 * s].total() < static_cast<size_t>(cells) || outputs[3 * s + 1].total() < static_cast<size_t>(cells) ||
                outputs[3 * s + 2].total() < static_cast<size_t>(4 * cells)) {
                throw std::runtime_error("the face model's outputs do not match its input size");
            }
            for (int i = 0; i < cells; i++) {
                float score = std::sqrt(clamped(cls[i]) * clamped(obj[i]));
                if (score < min_score) continue;
                int row = i / columns, column = i % columns;
                double centreX = (column + box[4 * i]) * stride, centreY = (row + box[4 * i + 1]) * stride;
                double boxWidth = std::exp(box[4 * i + 2]) * stride, boxHeight = std::exp(box[4 * i + 3]) * stride;
                boxes.emplace_back(centreX - boxWidth / 2, centreY - boxHeight / 2, boxWidth, boxHeight);
                scores.push_back(score);
            }
        }
        // Every box scores at least min_score already: only the overlaps are settled here.
        std::vector<int> kept;
        cv::dnn::NMSBoxes(boxes, scores, 0.0f, kOverlapLimit, kept);
        // Clipped to the image (not the padding), largest first.
        std::vector<fd_face> faces;
        // Clamped before rounding: a box of exp() overflowed is infinite, and lround of that undefined.
        auto within = [](double value, int limit) { return static_cast<int>(std::lround(std::min<double>(limit, std::max(0.0, value)))); };
        for (int index : kept) {
            const cv::Rect2d &b = boxes[index];
            if (!std::isfinite(b.x) || !std::isfinite(b.y)) continue;
            int left = within(b.x, width), top = within(b.y, height);
            int right = within(b.x + b.width, width), bottom = within(b.y + b.height, height);
            if (right <= left || bottom <= top) continue;
            faces.push_back(fd_face{left, top, right - left, bottom - top, scores[index]});
        }
        std::sort(faces.begin(), faces.end(),
                  [](const fd_face &a, const fd_face &b) { return a.width * a.height > b.width * b.height; });
        int count = std::min(static_cast<int>(faces.size()), capacity);
        std::copy(faces.begin(), faces.begin() + count, out);
        return static_cast<int>(faces.size());
    } catch (const std::exception &e) {
        if (err) *err = copied(e.what());
        return -1;
    }
}

extern "C" int fd_cnn_check(const char *model, char **err) {
    // A run on a black square: a file that is not this model fails here, not in a request.
    std::vector<unsigned char> black(64 * 64 * 4, 0);
    fd_face none[1];
    return fd_cnn_detect(black.data(), 64, 64, model, 0.99f, none, 1, err) < 0 ? -1 : 0;
}
