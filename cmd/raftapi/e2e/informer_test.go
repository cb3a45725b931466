package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientfeatures "k8s.io/client-go/features"
	clientfeaturestesting "k8s.io/client-go/features/testing"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// TestInformer runs a shared configmap informer against a single node
// and a 3-node follower, once on the streaming WatchList path (the
// WatchListClient client-go feature, which KUBE_FEATURE_WatchListClient=true
// turns on in a process; here it is set for the test's duration) and once
// on the classic LIST then WATCH path. In the 3-node cluster the leader is
// killed while the informer runs.
func TestInformer(t *testing.T) {
	for _, mode := range []struct {
		name      string
		watchList bool
	}{{"watchlist", true}, {"list-watch", false}} {
		t.Run(mode.name, func(t *testing.T) {
			clientfeaturestesting.SetFeatureDuringTest(t, clientfeatures.WatchListClient, mode.watchList)
			t.Run("1node", func(t *testing.T) {
				c := startCluster(t, 1)
				runInformer(t, c, 0, 0, -1, mode.watchList)
			})
			t.Run("3node", func(t *testing.T) {
				c := startCluster(t, 3)
				l := c.waitLeader(-1)
				runInformer(t, c, (l+1)%3, (l+2)%3, l, mode.watchList)
			})
		})
	}
}

// runInformer starts an informer on node watchNode, writes through node
// writeNode and checks that the informer's handlers see every change; if
// kill is a node, it is killed half way and the informer must keep
// receiving.
func runInformer(t *testing.T, c *procCluster, watchNode, writeNode, kill int, watchList bool) {
	cfg := restConfigFor(t, c.nodes[watchNode].api)
	rec := &wireRecorder{}
	rec.install(cfg)
	writer := mustClientset(t, restConfigFor(t, c.nodes[writeNode].api))
	const ns = "informer"
	mustNamespace(t, writer, ns)
	mustCreateConfigMap(t, writer, ns, "pre", "0")

	ctx, cancel := context.WithCancel(context.Background())
	factory := informers.NewSharedInformerFactoryWithOptions(mustClientset(t, cfg), 0, informers.WithNamespace(ns))
	defer func() { cancel(); factory.Shutdown() }()
	inf := factory.Core().V1().ConfigMaps().Informer()
	log := &handlerLog{}
	if _, err := inf.AddEventHandler(log.handler()); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	syncCtx, syncCancel := context.WithTimeout(ctx, 30*time.Second)
	defer syncCancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), inf.HasSynced) {
		t.Fatalf("informer did not sync within 30s; requests: %v", rec.exchanges())
	}
	log.waitFor(t, "add pre v=0")
	checkInformerPath(t, rec.exchanges(), watchList)

	mustCreateConfigMap(t, writer, ns, "live", "1")
	log.waitFor(t, "add live v=1")
	mustUpdateConfigMap(t, writer, ns, "live", "2")
	log.waitFor(t, "update live v=2")
	if err := writer.CoreV1().ConfigMaps(ns).Delete(callCtx(t), "live", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete live: %v", err)
	}
	log.waitFor(t, "delete live")
	if got := log.about("live"); !slices.Equal(got, []string{"add live v=1", "update live v=2", "delete live"}) {
		t.Errorf("handlers saw %v for live, want add, update, delete once each", got)
	}
	if _, ok, _ := inf.GetStore().GetByKey(ns + "/live"); ok {
		t.Errorf("informer store still holds %s/live", ns)
	}
	if kill < 0 {
		return
	}
	c.kill(kill)
	c.waitLeader(kill)
	mustCreateConfigMap(t, writer, ns, "after-kill", "3")
	log.waitFor(t, "add after-kill v=3")
	mustUpdateConfigMap(t, writer, ns, "pre", "4")
	log.waitFor(t, "update pre v=4")
}

// checkInformerPath checks from the requests the informer made that it
// took the path asked for, rather than falling back.
func checkInformerPath(t *testing.T, log []exchange, watchList bool) {
	t.Helper()
	var lists, streams, watches []exchange
	for _, e := range log {
		switch {
		case !strings.Contains(e.url, "/configmaps"):
		case e.isWatch() && strings.Contains(e.url, "sendInitialEvents=true"):
			streams = append(streams, e)
		case e.isWatch():
			watches = append(watches, e)
		default:
			lists = append(lists, e)
		}
	}
	switch {
	case watchList && (len(streams) == 0 || len(lists) > 0):
		t.Errorf("informer did not sync by WatchList alone: watch-list requests %v, list requests %v", streams, lists)
	case !watchList && (len(lists) == 0 || len(watches) == 0 || len(streams) > 0):
		t.Errorf("informer did not LIST then WATCH: lists %v, watches %v, watch-list requests %v", lists, watches, streams)
	}
	for _, e := range slices.Concat(lists, streams, watches) {
		if e.code != 200 {
			t.Errorf("informer request failed: %s", e)
		}
	}
}

// handlerLog records what an informer's event handlers were called with,
// as "add NAME v=V", "update NAME v=V" and "delete NAME".
type handlerLog struct {
	mu     sync.Mutex
	events []string
}

func (l *handlerLog) record(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, fmt.Sprintf(format, args...))
}

func (l *handlerLog) handler() cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			cm := obj.(*corev1.ConfigMap)
			l.record("add %s v=%s", cm.Name, cm.Data["v"])
		},
		UpdateFunc: func(_, obj any) {
			cm := obj.(*corev1.ConfigMap)
			l.record("update %s v=%s", cm.Name, cm.Data["v"])
		},
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			l.record("delete %s", obj.(*corev1.ConfigMap).Name)
		},
	}
}

// about returns the recorded events about configmap name, in order.
func (l *handlerLog) about(name string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, e := range l.events {
		if f := strings.Fields(e); f[1] == name {
			out = append(out, e)
		}
	}
	return out
}

// waitFor waits until the handlers have been called with event.
func (l *handlerLog) waitFor(t *testing.T, event string) {
	t.Helper()
	pollUntil(t, 20*time.Second, "informer event "+event, func() error {
		l.mu.Lock()
		defer l.mu.Unlock()
		if slices.Contains(l.events, event) {
			return nil
		}
		return fmt.Errorf("handlers saw %v", l.events)
	})
}

// mustCreateConfigMap creates configmap name with data v=value, retrying
// while the cluster elects a leader.
func mustCreateConfigMap(t *testing.T, cs kubernetes.Interface, ns, name, value string) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": value}}
	pollUntil(t, 20*time.Second, "create configmap "+name, func() error {
		_, err := cs.CoreV1().ConfigMaps(ns).Create(callCtx(t), cm, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil // an earlier attempt whose outcome was unknown
		}
		return err
	})
}

// mustUpdateConfigMap sets data v=value of configmap name.
func mustUpdateConfigMap(t *testing.T, cs kubernetes.Interface, ns, name, value string) {
	t.Helper()
	pollUntil(t, 20*time.Second, "update configmap "+name, func() error {
		cm, err := cs.CoreV1().ConfigMaps(ns).Get(callCtx(t), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cm.Data["v"] == value {
			return nil
		}
		cm.Data = map[string]string{"v": value}
		_, err = cs.CoreV1().ConfigMaps(ns).Update(callCtx(t), cm, metav1.UpdateOptions{})
		return err
	})
}
