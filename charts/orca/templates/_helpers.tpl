{{/*
Names, labels and the pieces every Orca pod shares: the image, the
restricted Pod Security profile, the /tmp volume, the probes and the
environment of the API and the engine shards.
*/}}

{{- define "orca.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "orca.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* A component's object name: <fullname>-<component>. */}}
{{- define "orca.componentName" -}}
{{- printf "%s-%s" (include "orca.fullname" .root) .component | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "orca.selectorLabels" -}}
app.kubernetes.io/name: {{ include "orca.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "orca.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "orca.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/part-of: orca
{{- with .root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "orca.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{- define "orca.operatorServiceAccount" -}}
{{- if .Values.operator.serviceAccount.create }}
{{- default (include "orca.componentName" (dict "root" . "component" "operator")) .Values.operator.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.operator.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The restricted Pod Security profile. The user is the Dockerfile's (USER
10001); the root filesystem is read-only, so /tmp is an emptyDir (tsx keeps
its compile cache there).
*/}}
{{- define "orca.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
fsGroup: 10001
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{- define "orca.containerSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
privileged: false
capabilities:
  drop: [ALL]
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{- define "orca.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: 256Mi
{{- end }}

{{- define "orca.tmpMount" -}}
- name: tmp
  mountPath: /tmp
{{- end }}

{{/* /healthz and /readyz on the http port; the startup probe covers migrations at start. */}}
{{- define "orca.probes" -}}
startupProbe:
  httpGet:
    path: /healthz
    port: http
  periodSeconds: 2
  failureThreshold: 60
livenessProbe:
  httpGet:
    path: /healthz
    port: http
  periodSeconds: 10
  timeoutSeconds: 3
  failureThreshold: 3
readinessProbe:
  httpGet:
    path: /readyz
    port: http
  periodSeconds: 5
  timeoutSeconds: 3
  failureThreshold: 2
{{- end }}

{{/* Replicas of a component spread over nodes where the scheduler can (ScheduleAnyway: never left pending for it). */}}
{{- define "orca.topologySpread" -}}
topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: kubernetes.io/hostname
    whenUnsatisfiable: ScheduleAnyway
    labelSelector:
      matchLabels:
        {{- include "orca.selectorLabels" . | nindent 8 }}
{{- end }}

{{/* imagePullSecrets, nodeSelector and tolerations of a pod: only those set, as YAML (empty when none is). */}}
{{- define "orca.podScheduling" -}}
{{- $out := dict }}
{{- with .root.Values.image.pullSecrets }}{{ $_ := set $out "imagePullSecrets" . }}{{ end }}
{{- with .pod.nodeSelector }}{{ $_ := set $out "nodeSelector" . }}{{ end }}
{{- with .pod.tolerations }}{{ $_ := set $out "tolerations" . }}{{ end }}
{{- if $out }}{{ toYaml $out }}{{ end }}
{{- end }}

{{/*
Settings left null or empty are not set at all, so Orca's own default
(api/config.ts) applies. Numbers are printed as integers: a large one would
otherwise come out in exponent form.
*/}}
{{- define "orca.optionalEnv" -}}
{{- $env := list }}
{{- range $name, $value := . }}
{{- if not (or (kindIs "invalid" $value) (eq (toString $value) "")) }}
{{- $env = append $env (dict "name" $name "value" (ternary (int64 $value | toString) (toString $value) (kindIs "float64" $value))) }}
{{- end }}
{{- end }}
{{- if $env }}{{ toYaml $env }}{{ end }}
{{- end }}

{{/* The environment of the API and the engine shards (cli/config.ts reads it), as YAML. */}}
{{- define "orca.serviceEnv" -}}
{{- $v := .root.Values }}
{{- $env := list (dict "name" "ORCA_ROLE" "value" .role) (dict "name" "PORT" "value" "8080") }}
{{- $env = append $env (dict "name" "DATABASE_URL" "valueFrom" (dict "secretKeyRef" (dict "name" $v.postgresql.existingSecret "key" $v.postgresql.urlKey))) }}
{{- $env = append $env (dict "name" "REDIS_URL" "valueFrom" (dict "secretKeyRef" (dict "name" $v.redis.existingSecret "key" $v.redis.urlKey))) }}
{{- if $v.smtp.existingSecret }}
{{- $env = append $env (dict "name" "SMTP_URL" "valueFrom" (dict "secretKeyRef" (dict "name" $v.smtp.existingSecret "key" $v.smtp.urlKey))) }}
{{- end }}
{{- if $v.webhooks.existingSecret }}
{{- $env = append $env (dict "name" "ORCA_WEBHOOK_SECRET_KEY" "valueFrom" (dict "secretKeyRef" (dict "name" $v.webhooks.existingSecret "key" $v.webhooks.secretKeyKey))) }}
{{- end }}
{{- $env = append $env (dict "name" "ORCA_METRICS" "value" (ternary "on" "off" $v.config.metrics)) }}
{{- range $name, $value := dict "ORCA_WEBHOOK_ALLOW_PRIVATE_NETWORKS" $v.webhooks.allowPrivateNetworks "ORCA_WEBHOOK_DISPATCHER" $v.webhooks.dispatcher }}
{{- if kindIs "bool" $value }}
{{- $env = append $env (dict "name" $name "value" (ternary "on" "off" $value)) }}
{{- end }}
{{- end }}
{{- toYaml $env }}
{{- with include "orca.optionalEnv" (dict
  "ORCA_PARTITIONS" $v.config.partitions
  "ORCA_LEASE_MS" $v.config.leaseMs
  "ORCA_COMMAND_RETENTION_MS" $v.config.commandRetentionMs
  "ORCA_DB_SCHEMA" $v.config.dbSchema
  "ORCA_REDIS_PREFIX" $v.config.redisPrefix
  "PUBLIC_URL" $v.config.publicUrl
  "ORCA_RATE_LIMIT_PER_SECOND" $v.config.rateLimitPerSecond
  "ORCA_RATE_LIMIT_BURST" $v.config.rateLimitBurst
  "ORCA_WEBHOOK_TIMEOUT_MS" $v.webhooks.timeoutMs
  "ORCA_WEBHOOK_PER_ENDPOINT" $v.webhooks.perEndpoint
  "ORCA_WEBHOOK_LOG_RETENTION_MS" $v.webhooks.logRetentionMs) }}
{{ . }}
{{- end }}
{{- with .extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}
