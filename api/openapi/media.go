package openapi

// Media types of requests and responses.
const (
	mediaJSON           = "application/json"
	mediaYAML           = "application/yaml"
	mediaProtobuf       = "application/vnd.kubernetes.protobuf"
	mediaJSONPatch      = "application/json-patch+json"
	mediaMergePatch     = "application/merge-patch+json"
	mediaStrategicPatch = "application/strategic-merge-patch+json"
	mediaApplyPatch     = "application/apply-patch+yaml"
	mediaJSONWatch      = "application/json;stream=watch"
	mediaProtobufWatch  = "application/vnd.kubernetes.protobuf;stream=watch"
	mediaAnyRequestBody = "*/*"
)

// responseTypes are the media types an operation answers in. Protobuf
// needs a Go type.
func responseTypes(typed, watch bool) []string {
	types := []string{mediaJSON, mediaYAML}
	if typed {
		types = append(types, mediaProtobuf)
	}
	if watch {
		types = append(types, mediaJSONWatch)
		if typed {
			types = append(types, mediaProtobufWatch)
		}
	}
	return types
}

// requestTypes are the media types of an operation's body. A strategic
// merge patch needs a Go type.
func requestTypes(b body, typed bool) []string {
	if !b.patch {
		return []string{mediaAnyRequestBody}
	}
	types := []string{mediaJSONPatch, mediaMergePatch}
	if typed {
		types = append(types, mediaStrategicPatch)
	}
	return append(types, mediaApplyPatch)
}
