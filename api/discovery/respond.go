package discovery

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/raftapi/raftapi/api/httpstatus"
)

// writeDocument writes v as JSON with the given Content-Type and an ETag
// of its content; a request whose If-None-Match holds that ETag gets 304.
func writeDocument(w http.ResponseWriter, r *http.Request, contentType string, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		httpstatus.Write(w, apierrors.NewInternalError(err))
		return
	}
	sum := sha256.Sum256(body)
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Etag", `"`+hex.EncodeToString(sum[:])+`"`)
	h.Add("Vary", "Accept")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}
