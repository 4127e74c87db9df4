import Faces

extension ThumbdConfig.Faces {
    /// The detector these keys name, checked now (its file read, its model run once): nil for
    /// none, and for an empty `cascades`, which turned faces off before there was a
    /// `detector`. A missing or wrong file stops the start with what to do about it.
    func makeDetector() throws(ConfigError) -> FaceDetector? {
        guard !cascades.isEmpty else { return nil }
        switch detector {
        case .none:
            return nil
        case .haar:
            do {
                return try FaceDetector(cascades: cascades)
            } catch {
                throw ConfigError(key: "faces.cascades", message: "\(error) (install Debian's opencv-data, or set it empty)")
            }
        case .cnn:
            do {
                return try FaceDetector(model: model, minScore: minScore)
            } catch {
                throw ConfigError(key: "faces.model", message: "\(error) (scripts/face-model.sh fetches it, as make run does; "
                                  + "or set faces.detector to haar or none)")
            }
        }
    }
}
