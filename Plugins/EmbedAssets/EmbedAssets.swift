import Foundation
import PackagePlugin

/// Embeds the files the app serves as they are (the OpenAPI document, the gallery page) into
/// Swift constants at build time, so one binary serves them wherever it runs and no generated
/// source is kept in the repository.
@main
struct EmbedAssets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let tool = try context.tool(named: "embed-asset")
        let assets: [(file: URL, type: String)] = [
            (context.package.directoryURL.appending(path: "docs/openapi.yaml"), "OpenAPIText"),
            (target.directoryURL.appending(path: "Assets/gallery.html"), "GalleryHTML"),
        ]
        return assets.map { asset in
            let output = context.pluginWorkDirectoryURL.appending(path: asset.type + ".swift")
            return .buildCommand(displayName: "Embedding \(asset.file.lastPathComponent)", executable: tool.url,
                                 arguments: [asset.file.path, output.path, asset.type],
                                 inputFiles: [asset.file], outputFiles: [output])
        }
    }
}
