"""Serving a lecture hall: several Streamlit processes behind one address.

One Python process serves about 60 students at a lesson pace (its interpreter lock is the
limit), so a bigger class gets more processes behind a load balancer that keeps each browser
on its own process (a cookie: a room sits behind one NAT address, so source IPs cannot tell
students apart):

- `deploy.haproxy`: writes the HAProxy configuration for N backends (`python -m deploy.haproxy`).
- `deploy.serve`: `python -m deploy.serve --processes 2` starts N `streamlit run app.py` on
  loopback ports and HAProxy in front on the public port; Ctrl-C stops them all.
- `deploy/compose.yaml` (+ `deploy/haproxy.cfg`): the same with Docker Compose, the image built
  from the repository's Dockerfile.
- `deploy/k8s/`: Deployment, Service, Ingress (ingress-nginx, cookie affinity), autoscaler.
"""
