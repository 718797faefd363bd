import Signaling

/// The browser softphone `parley switch --web` serves (docs/browser.md): one page, its script
/// (softphone.js, embedded by Package.swift) and its style, compiled into the binary so a copied
/// release binary serves them with nothing beside it. Plain JavaScript, no framework, nothing
/// loaded from another origin.
package enum SoftphoneSite {
    package static let resources: [HTTPResource] = [
        HTTPResource(path: "/", contentType: "text/html; charset=utf-8", text: SoftphonePage.html),
        HTTPResource(path: "/softphone.js", contentType: "text/javascript; charset=utf-8", body: PackageResources.softphone_js),
        HTTPResource(path: "/softphone.css", contentType: "text/css; charset=utf-8", text: SoftphoneStyle.source),
    ]
}
