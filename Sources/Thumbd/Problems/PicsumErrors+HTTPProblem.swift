import HTTP
import ThumbdCore

extension PicsumCatalog.Missing: HTTPProblem {
    var problem: ProblemDetails {
        switch pick {
        case .id(let id): ProblemDetails(.notFound, detail: "no image has the id \(id)")
        case .seed, .random: ProblemDetails(.notFound, detail: "the library has no images")
        }
    }
}
