package serviceaccount

import (
	"time"

	"github.com/go-jose/go-jose/v4/jwt"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	apiserverserviceaccount "k8s.io/apiserver/pkg/authentication/serviceaccount"
)

// publicClaims are the registered claims of an issued token. Unlike
// go-jose's jwt.Claims, the audience is always a JSON array, as in the
// tokens kube-apiserver issues.
type publicClaims struct {
	Issuer    string           `json:"iss,omitempty"`
	Subject   string           `json:"sub,omitempty"`
	Audience  []string         `json:"aud,omitempty"`
	Expiry    *jwt.NumericDate `json:"exp,omitempty"`
	NotBefore *jwt.NumericDate `json:"nbf,omitempty"`
	IssuedAt  *jwt.NumericDate `json:"iat,omitempty"`
	ID        string           `json:"jti,omitempty"`
}

// privateClaims are kube's private claims: the "kubernetes.io" object.
type privateClaims struct {
	Kubernetes kubernetesClaims `json:"kubernetes.io,omitempty"`
}

// kubernetesClaims name the service account and the object a token is
// bound to. Pod and node bindings are never issued here (there are no
// such objects), but a token from a kube-apiserver sharing a key may
// carry them, and must then be refused.
type kubernetesClaims struct {
	Namespace string           `json:"namespace,omitempty"`
	Svcacct   ref              `json:"serviceaccount,omitempty"`
	Pod       *ref             `json:"pod,omitempty"`
	Secret    *ref             `json:"secret,omitempty"`
	Node      *ref             `json:"node,omitempty"`
	WarnAfter *jwt.NumericDate `json:"warnafter,omitempty"`
}

// ref names an object by name and UID.
type ref struct {
	Name string `json:"name,omitempty"`
	UID  string `json:"uid,omitempty"`
}

// claims are the claims of a token for sa, valid from now for
// expiration, for audiences, bound to secret when it is set.
func claims(sa *corev1.ServiceAccount, secret *corev1.Secret, now time.Time, expiration time.Duration, audiences []string) (*publicClaims, *privateClaims) {
	public := &publicClaims{
		Subject:   apiserverserviceaccount.MakeUsername(sa.Namespace, sa.Name),
		Audience:  audiences,
		IssuedAt:  jwt.NewNumericDate(now),
		NotBefore: jwt.NewNumericDate(now),
		Expiry:    jwt.NewNumericDate(now.Add(expiration)),
		ID:        string(uuid.NewUUID()),
	}
	private := &privateClaims{Kubernetes: kubernetesClaims{
		Namespace: sa.Namespace,
		Svcacct:   ref{Name: sa.Name, UID: string(sa.UID)},
	}}
	if secret != nil {
		private.Kubernetes.Secret = &ref{Name: secret.Name, UID: string(secret.UID)}
	}
	return public, private
}
