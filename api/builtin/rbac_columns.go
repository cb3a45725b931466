package builtin

import (
	"fmt"
	"strings"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	rbacv1beta1 "k8s.io/api/rbac/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/raftapi/raftapi/api/resource"
)

// createdAtColumn is kube-apiserver's default Table column after the
// name, which it uses for roles and cluster roles: the creation time in
// RFC 3339, UTC.
func createdAtColumn() resource.Column {
	return resource.Column{
		TableColumnDefinition: metav1.TableColumnDefinition{
			Name: "Created At", Type: "date",
			Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"],
		},
		Value: func(obj map[string]any) any {
			return timeAt(obj, "metadata.creationTimestamp").UTC().Format(time.RFC3339)
		},
	}
}

// bindingColumns are kube-apiserver's binding columns: the role as
// "Kind/name", the age, and the subjects by kind in the wide view. kind
// ("roleBinding", "clusterRoleBinding") words the subject columns'
// descriptions, whose role column kube describes from rbac/v1beta1.
func bindingColumns(kind string) []resource.Column {
	roleRefDoc := rbacv1beta1.RoleBinding{}.SwaggerDoc()["roleRef"]
	if kind == "clusterRoleBinding" {
		roleRefDoc = rbacv1beta1.ClusterRoleBinding{}.SwaggerDoc()["roleRef"]
	}
	age := column("Age", metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"], 0, nil)
	age.Value, age.Path = nil, "metadata.creationTimestamp"
	return []resource.Column{
		column("Role", roleRefDoc, 0, func(obj map[string]any) any {
			return stringAt(obj, "roleRef.kind") + "/" + stringAt(obj, "roleRef.name")
		}),
		age,
		column("Users", "Users in the "+kind, 1, subjectsCell(rbacv1.UserKind)),
		column("Groups", "Groups in the "+kind, 1, subjectsCell(rbacv1.GroupKind)),
		column("ServiceAccounts", "ServiceAccounts in the "+kind, 1, subjectsCell(rbacv1.ServiceAccountKind)),
	}
}

// subjectsCell lists a binding's subjects of one kind, comma separated;
// service accounts as "namespace/name".
func subjectsCell(kind string) func(map[string]any) any {
	return func(obj map[string]any) any {
		subjects, _ := obj["subjects"].([]any)
		var names []string
		for _, s := range subjects {
			m, _ := s.(map[string]any)
			if stringAt(m, "kind") != kind {
				continue
			}
			name := stringAt(m, "name")
			if kind == rbacv1.ServiceAccountKind {
				name = fmt.Sprintf("%s/%s", stringAt(m, "namespace"), name)
			}
			names = append(names, name)
		}
		return strings.Join(names, ", ")
	}
}
