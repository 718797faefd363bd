/// The attributes whose grammar the parser checks. Anything else is kept as written, unchecked.
enum AttributeValidation {
    private static let views: [String: any TypedAttribute.Type] = {
        let types: [any TypedAttribute.Type] = [
            RTPMap.self, FormatParameters.self, RTCPFeedback.self, PTime.self, MaxPTime.self,
            MediaID.self, Group.self, MediaStreamID.self, SSRCAttribute.self, SSRCGroup.self,
            ExtensionMap.self, Candidate.self, EndOfCandidates.self, ICELite.self,
            ICEUsernameFragment.self, ICEPassword.self, ICEOptions.self, Fingerprint.self,
            SetupRole.self, Crypto.self, RTCPAddress.self, RTCPMux.self, RTCPReducedSize.self,
        ]
        return Dictionary(uniqueKeysWithValues: types.map { ($0.attributeName, $0) })
    }()

    static func validate(_ attribute: Attribute) throws(AttributeValueError) {
        if Direction.isDirection(attribute.name) {
            guard attribute.value == nil else {
                throw AttributeValueError("a=\(attribute.name) is a flag and takes no value")
            }
            return
        }
        guard let view = views[attribute.name] else { return }
        _ = try view.init(attributeValue: attribute.value)
    }
}
