#ifndef THUMBD_FACESHIM_H
#define THUMBD_FACESHIM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A face found in an image, in its pixels, with the detector's confidence in it (0 to 1; the
   Haar cascades give none: -1). */
typedef struct {
    int x, y, width, height;
    float score;
} fd_face;

/* The cascade files, in OpenCV's haarcascades folder, that the detector loads. */
extern const char *const fd_cascade_files[4];

/* Finds frontal faces in an 8-bit RGBA image (rows of 4 * width bytes) with OpenCV's Haar
   cascades from the folder cascade_dir (loaded once per thread): candidates of the first
   cascade, each kept only when at least two of the other three find a face in the same
   place, faces smaller than min_side pixels ignored. Writes at most capacity faces, largest
   first, and returns how many there are (more than capacity: ask again with room for them);
   -1 with *err set (free it with fd_free) when a cascade cannot be loaded or OpenCV fails. Single-threaded: OpenCV's own thread pool is
   off, the server's workers are the parallelism. */
int fd_detect_faces(const unsigned char *rgba, int width, int height, const char *cascade_dir, int min_side,
                    fd_face *out, int capacity, char **err);

/* Whether every cascade loads from cascade_dir: 0 yes, -1 with *err. */
int fd_check_cascades(const char *cascade_dir, char **err);

/* Finds faces in an 8-bit RGBA image with the YuNet CNN (its 2023 ONNX file at model, read by
   OpenCV's DNN module; nets are kept between calls, one per detection running at a time): every
   face scoring at least min_score, overlapping boxes merged. Writes at most capacity faces,
   largest first, and returns how many there are; -1 with *err set when the model cannot be
   read or OpenCV fails. Single-threaded, like fd_detect_faces. */
int fd_cnn_detect(const unsigned char *rgba, int width, int height, const char *model, float min_score,
                  fd_face *out, int capacity, char **err);

/* Whether model reads and runs as the detector's model: 0 yes, -1 with *err. */
int fd_cnn_check(const char *model, char **err);

void fd_free(void *pointer);

#ifdef __cplusplus
}
#endif

#endif
