/// An object of an S3 library to be passed through as it is.
package struct S3Original: Sendable {
    package let key: String
    package let objects: S3Objects

    package init(key: String, objects: S3Objects) {
        self.key = key
        self.objects = objects
    }
}
