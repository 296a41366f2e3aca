# The browser client's page (clients/web), built with Vite and served as static files by an
# unprivileged nginx on :8080. Envoy (deploy/envoy/web.yaml) sits in front of it and of the
# gRPC server; compose.yaml runs all three. From the repository root:
#
#     docker build -f deploy/web.Dockerfile -t yggdrasil-web:0.1.0 .
FROM node:20-bookworm-slim AS build
WORKDIR /src/clients/web
COPY clients/web/package.json clients/web/package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY clients/web/ ./
RUN npm run build

FROM nginxinc/nginx-unprivileged:1.27-alpine
COPY --from=build /src/clients/web/dist /usr/share/nginx/html
EXPOSE 8080
